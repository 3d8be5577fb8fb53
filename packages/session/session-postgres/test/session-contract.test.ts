import { describe } from 'vitest'
import {
  describeSessionContract,
  type ContractStore,
} from '../../../core/session/test/support/session-contract.ts'
import { useTestDatabase } from './support/postgres.ts'

// The contract the memory and JSONL stores keep (packages/core/session), run against PostgreSQL.
const db = useTestDatabase('contract')

const postgres: ContractStore = {
  name: 'postgres',
  numRuns: 15,
  open: async (clock) => {
    const store = db.store()
    const id = db.id()
    const session = await store.open(id, { clock })
    return {
      session,
      reopen: async (next) => {
        await session.close()
        return store.open(id, { clock: next })
      },
    }
  },
}

describe('session contract: postgres store', () => describeSessionContract(postgres))
